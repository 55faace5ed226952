"""Python's containers in compiled code: lists, dicts, sets (over one hash table), tuples,
namedtuples, and `ember.typed.List` / `ember.typed.Dict` made inside compiled code."""
