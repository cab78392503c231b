#!/bin/sh
# Publishes the loadable SQLite extension with Native AOT as a shared library and leaves
# voron.so in OUTDIR (default: ./bin/extension beside this script). Fails on any trim or AOT
# warning (IL2xxx, IL3xxx). Links with gcc (Debian: apt-get install gcc).
#   Voron.SqliteExtension/publish.sh [OUTDIR]        then, in sqlite3:  .load OUTDIR/voron
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/bin/extension"}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
log="$work/publish.log"
if ! dotnet publish "$here/Voron.SqliteExtension.csproj" -c Release -r linux-x64 \
        -p:PublishAot=true -p:NativeLib=Shared -p:CppCompilerAndLinker=gcc --disable-build-servers \
        -o "$work/bin" >"$log" 2>&1; then
    cat "$log"
    echo "voron.so: publish failed" >&2
    rm -rf "$work"
    exit 1
fi
if grep -E "warning IL[0-9]{4}" "$log"; then
    echo "voron.so: trim/AOT warnings (above)" >&2
    rm -rf "$work"
    exit 1
fi
cp "$work/bin/Voron.SqliteExtension.so" "$out/voron.so"
rm -rf "$work"
ls -l "$out/voron.so"
