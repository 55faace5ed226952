"""Sub-pass 8 (placeholder while being written)."""


def fuse_parfors(func_ir, typemap, parfors, report):
    return parfors
