#!/bin/sh
# An engine that leaves processes behind (issue 16.2): it ignores SIGTERM
# (and so do its children, which inherit the ignored signal), starts a
# helper that would outlive it, and keeps running after `quit`. The engine
# itself is the mock engine ($MOCK_ENGINE) with this script's arguments.
# Tests find every process it started by $ORPHAN_MARKER in their
# environment.
trap '' TERM
sh -c 'sleep 300; :' &
"$MOCK_ENGINE" "$@"
sleep 300
