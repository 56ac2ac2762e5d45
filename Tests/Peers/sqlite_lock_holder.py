"""Holds a SQLite database's write lock, as another process (an operator's sqlite3 shell, a
backup tool) would: BEGIN EXCLUSIVE, print "locked", and keep it until standard input closes,
then roll back. Python's own sqlite3 module: an independent peer of the service's SQLite code.

usage: sqlite_lock_holder.py DATABASE
"""
import sqlite3
import sys

connection = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()  # until the test closes the pipe (or exits)
connection.execute("ROLLBACK")
connection.close()
