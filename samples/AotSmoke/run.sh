#!/bin/sh
# Publishes the Native AOT smoke test and runs it. Fails on any trim or AOT warning (IL2xxx,
# IL3xxx) and when the program's checks fail. Needs clang (Debian: apt-get install clang).
#   samples/AotSmoke/run.sh          from the repository root
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
log="$out/publish.log"
if ! dotnet publish "$here/AotSmoke.csproj" -c Release -r linux-x64 --disable-build-servers -o "$out/bin" >"$log" 2>&1; then
    cat "$log"
    echo "AOT smoke test: publish failed" >&2
    exit 1
fi
if grep -E "warning IL[0-9]{4}" "$log"; then
    echo "AOT smoke test: trim/AOT warnings (above)" >&2
    exit 1
fi
ls -l "$out/bin/AotSmoke"
"$out/bin/AotSmoke"
rm -rf "$out"
