// Driver: the steps of Analysis.computeAll / computeEstimatesAll (Analysis.scala lines 20-58, 122-151,
// 255-260, 262-266) for the four estimators used here, printing every score with full precision.
package at.ac.tuwien.ifs.ir.evaluation.poolbias.estimators
import java.io.File
import at.ac.tuwien.ifs.ir.evaluation.pool._
import at.ac.tuwien.ifs.ir.evaluation.poolbias.estimators.bin.Main.L1xo
import at.ac.tuwien.ifs.ir.model._

object Driver extends Command {
  def main(args: Array[String]): Unit = {
    val qRels = getQRels(new File(args(0)))
    val lRuns = getListRuns(new File(args(1)))
    val newRuns = new File(args(2)).listFiles.toList.sortBy(_.getName).map(getRuns(_))
    val metrics = args(3).split(",").toList
    val pool = new Pool(lRuns, qRels)
    val poolAnalyser = PoolAnalyzer(pool, "mode")
    println("depth\t" + poolAnalyser.d)
    println("pooled\t" + poolAnalyser.pooledRuns.map(_.id).sorted.mkString(","))
    val depthNPool = new DepthNPool(poolAnalyser.d, poolAnalyser.pooledRuns, pool.qRels)
    System.setProperty("pool.depth", poolAnalyser.d + "")
    println("pool_qrels\t" + depthNPool.qRels.size + "\t" + depthNPool.qRels.sizeRel + "\t" + depthNPool.qRels.sizeNotRel)
    for (metric <- metrics) {
      val estimators = List(TrueEstimator(depthNPool, metric), PoolEstimator(depthNPool, metric),
        WebberOnRunsEstimator(depthNPool, metric, null), LipaniEstimator(depthNPool, metric),
        LipaniEstimatorV2(depthNPool, metric)).filter(_.isMetricSupported(metric))
      for (e <- estimators; s <- e.getAllScores(L1xo.run))
        println(List("l1ro", metric, e.getName, s.runId, "%.10f".format(s.score)).mkString("\t"))
      for (e <- estimators if !e.isInstanceOf[TrueEstimator]; ru <- newRuns) {
        val s = e.getScore(ru)
        println(List("new", metric, e.getName, s.runId, "%.10f".format(s.score)).mkString("\t"))
      }
    }
  }
}
