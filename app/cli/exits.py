"""The command line's exit codes, apart from the package so any command module can import them
without importing the package's dispatcher (which imports every command)."""

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNAVAILABLE = 0, 1, 2, 3
