"""Readers and writers of the TREC file formats: runs, qrels, topics, documents."""
