"""Runs the echo server as a script: python3 server.py (see echoserver)."""

from echoserver import serve

serve()
