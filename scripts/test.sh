#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/services.sh
exec ./mvnw -B verify "$@"
