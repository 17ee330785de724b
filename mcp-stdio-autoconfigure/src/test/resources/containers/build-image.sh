#!/bin/sh
# Builds the container tests' image mcp-stdio-test-server:latest from a static busybox (Debian's
# busybox-static) and the fixture servers, FROM scratch, without a registry. Idempotent: an image
# already built from the same files is kept, so a second run costs about a second.
# Usage: build-image.sh [engine]   (engine: docker (default) or podman)
set -eu
engine=${1:-docker}
here=$(cd "$(dirname "$0")" && pwd)
image=mcp-stdio-test-server:latest
busybox=${BUSYBOX:-/bin/busybox}
case "$(file -b "$busybox" 2>/dev/null || echo unknown)" in
  *static*) ;;
  unknown) ;; # no file(1): trust it, the build fails clearly otherwise
  *) echo "$busybox is not statically linked: install busybox-static" >&2; exit 2 ;;
esac
hash=$(cat "$here/Dockerfile" "$here/echo.sh" "$here/stubborn.sh" "$here/family.sh" "$here/../fixtures/lib.sh" "$busybox" | sha256sum | cut -c1-16)
current=$("$engine" image inspect --format '{{index .Config.Labels "dev.mcpstdio.test.hash"}}' "$image" 2>/dev/null || true)
if [ "$current" = "$hash" ]; then
  exit 0
fi
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$here/Dockerfile" "$here/echo.sh" "$here/stubborn.sh" "$here/family.sh" "$here/../fixtures/lib.sh" "$context/"
cp "$busybox" "$context/busybox"
if ! DOCKER_BUILDKIT=0 "$engine" build -q --label "dev.mcpstdio.test.hash=$hash" -t "$image" "$context" >"$context/log" 2>&1; then cat "$context/log" >&2; exit 1; fi
echo "built $image ($hash)"
