#!/bin/sh
# STUB: to be written.
exit 77
