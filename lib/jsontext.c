/* jsontext.c: JSON checks (see jsontext.h).  json-c parses a prefix and
 * says where it stopped; what comes after is ours to refuse. */
#include <json-c/json.h>

#include "jsontext.h"
#include "utf8.h"

int
tmq_json_is_object(const unsigned char *s, size_t n)
{
	struct json_tokener *tok;
	struct json_object *o;
	int ok;

	/* JSON text is UTF-8 (RFC 8259), and json-c does not check: the
	 * library's json.loads fails on anything else. */
	if (n > (size_t)INT32_MAX || !tmq_utf8_valid(s, n))
		return 0;
	tok = json_tokener_new();
	if (tok == NULL)
		return 0;
	o = json_tokener_parse_ex(tok, (const char *)s, (int)n);
	/* The whole input must be the one object, with nothing after it. */
	ok = o != NULL && json_object_is_type(o, json_type_object) &&
	    json_tokener_get_error(tok) == json_tokener_success &&
	    tok->char_offset == (int)n;
	json_object_put(o);
	json_tokener_free(tok);
	return ok;
}

int
tmq_json_only_space(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return 0;
	return 1;
}
