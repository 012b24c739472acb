"""What the service reports while it works (port.py); transport/metrics.py implements it."""
