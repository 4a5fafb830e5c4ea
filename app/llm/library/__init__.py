"""The model library: built-in models, GGUFs on disk, and curated GGUFs to download.

Plain Python (no Qt, no llama.cpp): the settings dialog and ``calculon models``
both list, pull and remove through it.
"""
