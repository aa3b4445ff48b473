/* stop.c: the stop flag (see stop.h). */
#include "stop.h"

volatile sig_atomic_t tmq_stop;
