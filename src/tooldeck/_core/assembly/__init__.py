"""Assembly: the gates that turn candidate tools into a Loadout."""
