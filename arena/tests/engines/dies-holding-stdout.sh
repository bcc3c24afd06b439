#!/bin/sh
# An engine that dies while a helper it started still holds its stdout
# open (issue 18.6): the arena never sees end of input, only the exit of
# the process. The engine is the mock engine ($MOCK_ENGINE) with this
# script's arguments; the helper is found by $ORPHAN_MARKER.
sh -c 'sleep 300; :' &
exec "$MOCK_ENGINE" "$@"
