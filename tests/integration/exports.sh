#!/usr/bin/env bash
# libzcnic.so exports its map and nothing else, and the map is exactly what
# the installed headers declare (scripts/check-exports.sh says which names
# differ when not). install.sh links programs against those exports.
cd "$(dirname "$0")/../.." && exec scripts/check-exports.sh
