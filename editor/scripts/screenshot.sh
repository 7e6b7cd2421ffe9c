#!/usr/bin/env bash
# Starts hexsight-editor under Xvfb with a map, takes a screenshot and fails if
# it is blank (a uniform image means the window never drew).
#
#   editor/scripts/screenshot.sh [MAP] [OUT.png] [-- EDITOR ARGS...]
#
# Needs: apt-get install -y xvfb xauth libxkbcommon-x11-0 libgl1-mesa-dri libglx-mesa0 libegl-mesa0 imagemagick
# The editor binary is taken from $EDITOR_BIN, else $CARGO_TARGET_DIR/release, else target/release.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
map="${1:-$root/maps/hill-112.json}"
out="${2:-$root/docs/guide/images/editor.png}"
shift $(( $# >= 2 ? 2 : $# ))
[[ "${1:-}" == "--" ]] && shift
extra=("$@")

if [[ ! -f "$map" ]]; then
    echo "screenshot.sh: map $map not found; using the editor's demo map" >&2
    map="$root/editor/tests/data/demo-hill.json"
fi
bin="${EDITOR_BIN:-${CARGO_TARGET_DIR:-$root/target}/release/hexsight-editor}"
if [[ ! -x "$bin" ]]; then
    (cd "$root" && cargo build --release -p hexsight-editor)
fi
for tool in xvfb-run import identify; do
    command -v "$tool" >/dev/null || { echo "screenshot.sh: $tool missing (apt-get install -y xvfb xauth imagemagick ...)" >&2; exit 2; }
done

mkdir -p "$(dirname "$out")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# A private data folder: no recovery prompt from a developer's own sessions.
export HEXSIGHT_EDITOR_HOME="$tmp/data"
# Software rendering: wgpu falls back to GL on llvmpipe.
export LIBGL_ALWAYS_SOFTWARE=1 WGPU_BACKEND="${WGPU_BACKEND:-gl}"

cat > "$tmp/run.sh" <<INNER
#!/usr/bin/env bash
"$bin" "$map" ${extra[@]+"${extra[@]}"} > "$tmp/editor.log" 2>&1 &
pid=\$!
for i in \$(seq 1 ${SCREENSHOT_WAIT:-8}); do
    sleep 1
    kill -0 \$pid 2>/dev/null || { echo "editor exited early" >&2; cat "$tmp/editor.log" >&2; exit 1; }
done
import -window root "$out"
kill \$pid 2>/dev/null || true
wait \$pid 2>/dev/null || true
INNER
chmod +x "$tmp/run.sh"
# Never hang CI: the whole run gets two minutes.
timeout 120 xvfb-run -a -s "-screen 0 1400x860x24" "$tmp/run.sh"

# Blank check: a drawn editor has many colours and a clear spread of values.
sd="$(identify -format '%[fx:standard_deviation]' "$out")"
colors="$(identify -format '%k' "$out")"
echo "screenshot: $out (standard deviation $sd, $colors colours)"
if awk -v s="$sd" -v c="$colors" 'BEGIN { exit !(s < 0.02 || c < 50) }'; then
    echo "screenshot.sh: the screenshot is blank" >&2
    cat "$tmp/editor.log" >&2 || true
    exit 1
fi
