"""Every measure of ``trec_eval -m all_trec``, exactly as trec_eval 10.0 computes and prints it."""
