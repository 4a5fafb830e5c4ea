"""The desktop window: the only package that imports Qt (PySide6) and qasync.

``app.ui.main.main(argv)`` starts it. Engine events reach widgets through one
bridge (``app.ui.controller.EventBridge``); widgets reach the engine only through
``ChatController.submit(text)`` and ``ChatController.cancel()``.
"""
