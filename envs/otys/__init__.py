"""Otys (2-4 players) as a PettingZoo AEC environment; see README.md."""
