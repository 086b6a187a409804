// Stand-in for PoolBiasEstimators bin/Main.scala: only its L1xo enumeration (lines 16-19),
// which the estimators import; their command line (scopt) is not needed here.
package at.ac.tuwien.ifs.ir.evaluation.poolbias.estimators.bin
object Main {
  object L1xo extends Enumeration {
    type L1xo = Value
    val run, organization, both = Value
  }
}
