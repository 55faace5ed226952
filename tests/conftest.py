"""Test-wide settings: verify the IR after every compiler pass (read by ember.config at import)."""

import os

os.environ.setdefault("EMBER_VERIFY_IR", "1")
