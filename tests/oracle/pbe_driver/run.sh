#!/bin/sh
# Run Lipani's PoolBiasEstimators (github.com/aldolipani/PoolBiasEstimators, commit ce84a2d)
# on TREC-COVID round 1, for tests/analysis/test_bias_correction_reference.py.
# Needs a checkout of that repository and Debian's scala package (2.11, as their build.sbt).
# Their full build needs sbt and libraries from Maven Central (scopt, akka, spray,
# breeze, ...); only the files the estimators use are compiled here, with two stand-ins:
# MainL1xo.scala (only the L1xo enumeration of bin/Main.scala, without scopt) and a
# PoolConverter holding only repoolToDepthN and repoolTo, cut from theirs by line
# number (the InteractiveQRels branch, a REST service, dropped).
# Usage: run.sh PBE_CHECKOUT DATA_DIR OUT.tsv   (DATA_DIR: shared/data/trec_covid_r1)
set -eu
src="$1/src/main/scala/at/ac/tuwien/ifs"
data="$2"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
{ echo 'package at.ac.tuwien.ifs.ir.evaluation.pool'; echo 'import at.ac.tuwien.ifs.ir.model._'
  echo 'object PoolConverter {'; sed -n 72,78p "$src/ir/evaluation/pool/PoolConverter.scala"
  sed -n 204,226p "$src/ir/evaluation/pool/PoolConverter.scala" |
    sed 's/if (qRels.isInstanceOf\[InteractiveQRels\]) InteractiveQRels.par(qRels.qRels) else qRels.qRels.par/qRels.qRels.par/'
  echo '}'; } > "$work/PoolConverter.scala"
mkdir -p "$work/classes" "$work/pooled" "$work/new"
e="$src/ir/evaluation/poolbias/estimators"
scalac -nowarn -d "$work/classes" "$src/io/TXTFile.scala" "$src"/ir/model/*.scala \
  "$src/ir/evaluation/TRECEval.scala" "$src/utils/Exporter.scala" \
  "$src"/ir/evaluation/pool/Pool.scala "$src"/ir/evaluation/pool/DepthNPool.scala \
  "$src"/ir/evaluation/pool/PoolAnalyzer.scala "$src"/ir/evaluation/pool/PoolAnalyzerType.scala \
  "$e/Command.scala" "$e/ScoreEstimator.scala" "$e/PoolEstimator.scala" "$e/TrueEstimator.scala" \
  "$e/WebberOnRunsEstimator.scala" "$e/LipaniEstimator.scala" "$e/LipaniEstimatorV2.scala" \
  "$here/MainL1xo.scala" "$here/Driver.scala" "$work/PoolConverter.scala"
# the 12 pooled runs stored (their PoolAnalyzer keeps 11: see the test) and the 3 not pooled
for run in BBGhelani2 OHSU_RUN2 T5R1 UIowaS_Run3 bm25_baseline ixa-ir-filter-query run1 \
           sab20.1.meta.docs sheikh_bm25_all smith.rm3 udel_fang_run2 uogTrDPH_QE; do
  ln -s "$data/runs/$run" "$work/pooled/$run"; done
for run in BM25R2 CSIROmedNIR run2; do ln -s "$data/runs/$run" "$work/new/$run"; done
scala -J-Xmx3g -cp "$work/classes" at.ac.tuwien.ifs.ir.evaluation.poolbias.estimators.Driver \
  "$data/qrels-rnd1.txt" "$work/pooled" "$work/new" P_10,recall_10 > "$3"
rm -r "$work"
