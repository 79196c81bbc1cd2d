"""The table box's own helpers: the settings file, the health check, the service watchdog and the LAN address."""
