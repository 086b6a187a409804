"""How qrels changes move the scores: qrels diffs, ranking stability, pool bias."""
