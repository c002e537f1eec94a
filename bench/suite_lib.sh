# Shared by the bench/*_suite.sh scripts (sourced, not run): the defaults and
# run(), which appends one bench.py table under a title to $out.
#
# Environment: PYTHON (default .venv/bin/python), SHARED (default ../shared/data).
py=${PYTHON:-.venv/bin/python}
shared=${SHARED:-../shared/data}

run() {  # run <title> <tokenizer.json> <bench.py options...>
  local title=$1 tok=$2
  shift 2
  if [ ! -f "$tok" ]; then
    echo "skip $title: $tok not found" >&2
    return
  fi
  echo "== $title" >&2
  {
    printf '\n### %s\n\n' "$title"
    "$py" bench/bench.py --tokenizer "$tok" --markdown "$@"
  } >>"$out"
}
