"""Otontin: Warriors of the Lost Empire (3-8 players) as a PettingZoo AEC environment."""
