#!/usr/bin/env bash
# Builds the Ollama server of the version go.mod pins, from the Go module
# source, into a cache folder outside the checkout, and prints its path.
# A binary already in the cache is reused. Progress goes to stderr, so
#
#	HARNESS_OLLAMA_BIN=$(.ci/ollama.sh)
#
# is all a caller needs. A cold build compiles ggml and llama.cpp with cgo
# (several minutes on two cores, about 1 GB of memory); the C++ it needs
# beyond the module is nlohmann/json and stb_image, from Debian packages.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
export GOWORK=off

mod=github.com/ollama/ollama
version=$(go list -m -f '{{.Version}}' "$mod")
cache="${XDG_CACHE_HOME:-$HOME/.cache}/harness/ollama-$version"
bin="$cache/ollama"

log() { echo "ollama.sh: $*" >&2; }

if [ -x "$bin" ]; then
	log "reusing $bin"
	echo "$bin"
	exit 0
fi

# The headers llama.cpp expects in its vendor/ folder, which module zips
# leave out: two come from Debian, the third is stubbed below.
need=()
for pkg in nlohmann-json3-dev libstb-dev g++; do
	dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	log "installing ${need[*]}"
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

mkdir -p "$cache"
# One build at a time per cache folder; whoever waited reuses the result.
exec 9>"$cache/.lock"
flock 9
if [ -x "$bin" ]; then
	log "reusing $bin"
	echo "$bin"
	exit 0
fi

src=$(go mod download -json "$mod@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { log "cannot find the source of $mod@$version"; exit 1; }

work="$cache/src"
rm -rf "$work"
cp -r "$src" "$work"
chmod -R u+w "$work"

# miniaudio decodes audio for multimodal models only. Text models never reach
# it, so a header that declares what mtmd-helper.cpp uses, and fails, will do.
vendor="$work/llama/llama.cpp/vendor"
mkdir -p "$vendor/miniaudio"
cat >"$vendor/miniaudio/miniaudio.h" <<'EOF'
/* Stand-in for miniaudio: audio input is not supported in this build. */
#ifndef HARNESS_MINIAUDIO_STUB_H
#define HARNESS_MINIAUDIO_STUB_H
#include <stddef.h>
#include <stdint.h>

typedef int ma_result;
typedef uint64_t ma_uint64;
typedef int ma_format;
#define MA_SUCCESS 0
#define MA_NOT_IMPLEMENTED (-29)
#define ma_format_f32 5

typedef struct { ma_format format; int channels; int sampleRate; } ma_decoder_config;
typedef struct { int unused; } ma_decoder;

static inline ma_decoder_config ma_decoder_config_init(ma_format f, int channels, int rate) {
	ma_decoder_config c = { f, channels, rate };
	return c;
}
static inline ma_result ma_decoder_init_memory(const void *p, size_t n, const ma_decoder_config *c, ma_decoder *d) {
	(void)p; (void)n; (void)c; (void)d;
	return MA_NOT_IMPLEMENTED;
}
static inline ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder *d, ma_uint64 *n) {
	(void)d; *n = 0;
	return MA_NOT_IMPLEMENTED;
}
static inline ma_result ma_decoder_read_pcm_frames(ma_decoder *d, void *out, ma_uint64 n, ma_uint64 *read) {
	(void)d; (void)out; (void)n; *read = 0;
	return MA_NOT_IMPLEMENTED;
}
static inline ma_result ma_decoder_uninit(ma_decoder *d) {
	(void)d;
	return MA_SUCCESS;
}
#endif
EOF
mkdir -p "$vendor/nlohmann" "$vendor/stb"
cp /usr/include/nlohmann/json.hpp /usr/include/nlohmann/json_fwd.hpp "$vendor/nlohmann/"
cp /usr/include/stb/stb_image.h "$vendor/stb/"

log "building $mod@$version into $cache (a cold build takes minutes)"
start=$(date +%s)
(
	cd "$work"
	CGO_ENABLED=1 go build -trimpath -o "$bin.tmp" \
		-ldflags "-X=$mod/version.Version=${version#v} -X=$mod/server.mode=release" .
)
mv "$bin.tmp" "$bin"
rm -rf "$work"
log "built in $(($(date +%s) - start))s"
echo "$bin"
