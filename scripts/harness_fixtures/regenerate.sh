#!/usr/bin/env bash
# Regenerate tests/data/io/real/ with the real harnesses, each in its own throwaway venv.
# Usage (from the repository root): bash scripts/harness_fixtures/regenerate.sh [VENV_ROOT]
# Needs Python 3.11 and the package index; the runs themselves stay offline.
set -euo pipefail
ROOT=${1:-/tmp/harness-venvs}
HERE=scripts/harness_fixtures
OUT=tests/data/io/real
PY=${PYTHON:-python3.11}

venv() {  # venv NAME PIP-ARGS...
    local name=$1; shift
    if [ ! -x "$ROOT/$name/bin/python" ]; then
        "$PY" -m venv "$ROOT/$name"
        "$ROOT/$name/bin/pip" install -q "$@"
    fi
}

venv inspect "inspect-ai==0.3.285"
venv inspect-old "inspect-ai==0.3.170"
venv lmeval "lm_eval==0.4.13"
venv evals --no-deps "evals==3.0.1.post1"
"$ROOT/evals/bin/pip" install -q blobfile openai backoff pyyaml numpy tqdm tiktoken filelock \
    termcolor dacite aiolimiter pydantic mock lz4 zstandard pandas
venv helm --no-deps "crfm-helm==0.5.16"
"$ROOT/helm/bin/pip" install -q "cattrs~=22.2" "colorlog~=6.9" "dacite~=1.6" "Mako~=1.2" numpy \
    "pandas~=2.0" "pyhocon~=0.3.59" "ubelt~=1.3" "retrying~=1.3" tqdm zstandard sqlitedict \
    pyyaml "datasets~=3.1" scipy "uncertainty-calibration~=0.1.4" "nltk!=3.9.0,~=3.7" \
    "rouge-score~=0.1.2"

[ -x "$ROOT/promptfoo/node_modules/.bin/promptfoo" ] || npm install -q --no-audit --no-fund \
    --prefix "$ROOT/promptfoo" promptfoo@0.121.20
venv lighteval "torch==2.13.0"
"$ROOT/lighteval/bin/pip" install -q "lighteval==0.13.0" "xxhash<4"
venv evalscope "evalscope==1.14.1"
venv deepeval "deepeval==4.3.1"
venv opencompass "torch==2.13.0"
"$ROOT/opencompass/bin/pip" install -q "opencompass==0.5.4" "pyarrow==19.0.1"

"$ROOT/inspect/bin/python" "$HERE/gen_inspect.py" "$OUT/inspect"
"$ROOT/inspect/bin/python" "$HERE/gen_inspect_tasks.py" "$OUT/inspect_tasks"
"$ROOT/inspect/bin/python" "$HERE/gen_graded.py" "$OUT/graded"
"$ROOT/inspect-old/bin/python" "$HERE/gen_inspect.py" "$OUT/inspect_old" --legacy
"$ROOT/lmeval/bin/python" "$HERE/gen_lmeval.py" "$OUT/lmeval"
"$ROOT/evals/bin/python" "$HERE/gen_openai_evals.py" "$OUT/openai_evals"
"$ROOT/helm/bin/python" "$HERE/gen_helm.py" "$OUT/helm"
"$PY" "$HERE/gen_promptfoo.py" "$OUT/promptfoo" --promptfoo "$ROOT/promptfoo/node_modules/.bin/promptfoo"
"$ROOT/lighteval/bin/python" "$HERE/gen_lighteval.py" "$OUT/lighteval"
"$ROOT/evalscope/bin/python" "$HERE/gen_evalscope.py" "$OUT/evalscope"
"$ROOT/deepeval/bin/python" "$HERE/gen_deepeval.py" "$OUT/deepeval"
"$ROOT/opencompass/bin/python" "$HERE/gen_opencompass.py" "$OUT/opencompass"
"${MCNEMAR_PYTHON:-python}" "$HERE/neutralise_archive_paths.py" "$OUT"
du -sh "$OUT"
