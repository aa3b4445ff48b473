# dataclasses_jsonschema.py (tests/refshim/fallback): a stand-in for the
# one name the TwainMQ library (0.1.9) imports from the
# dataclasses-jsonschema package.  Its group messages (consumer_groups.py)
# are dataclasses with JsonSchemaMixin as a base and call none of its
# methods: they are written with dataclasses.asdict and read back field by
# field.  Found only when the real package is not installed (the
# sitecustomize beside fallback/ puts this directory last on sys.path).


class JsonSchemaMixin:
    """Base class of the library's group messages; adds nothing here."""
