# Sourced by the scripts/models/*/build.sh scripts (which set $work, their temporary folder).
#
#   extract GIT_DIR URL COMMIT DIR PATH...   writes PATH... of URL at COMMIT into DIR
#
# GIT_DIR is a local git directory (bare or not) holding COMMIT, for machines without GitHub; empty: the
# repository is cloned (without blobs until needed) into $work.
extract() {
  local git_dir=$1 url=$2 commit=$3 dir=$4; shift 4
  if [ -z "$git_dir" ]; then
    git clone --quiet --filter=blob:none --no-checkout "$url" "$work/clone-$(basename "$url")"
    git_dir="$work/clone-$(basename "$url")/.git"
  fi
  mkdir -p "$dir"
  git --git-dir="$git_dir" archive "$commit" "$@" | tar -x -C "$dir"
}
