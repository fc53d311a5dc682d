#!/bin/sh
# Lists notes
ls notes/
