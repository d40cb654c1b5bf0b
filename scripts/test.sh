#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/services.sh
# install (not just verify): the consumer test (src/it ConsumerAppTwoProcessTests) builds src/it/consumer-app
# against the installed lease artifacts exactly as a user's application would, and starts it as two JVMs
exec ./mvnw -B install -Dconsumer.it=true "$@"
