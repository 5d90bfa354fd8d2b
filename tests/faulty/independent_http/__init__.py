"""A vendor written from the contract and the rules alone, served over HTTP.

It is the project's test of its own reading: nothing here reuses the reference's service, its
wallet, its sales, its reveal protocol or its HTTP stack. What it takes from the project is data
a vendor would receive from elsewhere: block files made by ``instantcert generate-block`` (its
"generator"), and the independent evaluator of ``tests/faulty/_evaluator.py`` for evaluate and
AUTO's wins. Everything else takes the freedoms the contract leaves, on purpose, so that a
harness check reading more into the contract than its letter fails this correct vendor:

- stdlib ``http.server`` (HTTP/1.1 keep-alive, lower-case header names, chunked block streams);
- a SQLite ledger of its own (WAL), durable across a restart, block files stored beside it;
- integer account ids, ULID play ids, tokens carrying the account id, block ids ``robots.100.1``;
- 403 for someone else's account or play (404 for an unknown one);
- its own error codes and wording, extra fields in answers, JSON indented and key-sorted;
- a history page of 20 by default, ``limit`` at most 1000 (400 beyond; ``--history-most N``
  takes another maximum, the page then at most N);
- slices past a block's end clipped, not refused; AUTO refused (409) when nothing is left
  (a second AUTO, or a robots ticket clicked to its end); an extra ``letter`` in every win;
- ``created_at`` in RFC 3339 with a ``+00:00`` offset and milliseconds.

Run it: ``python -m tests.faulty.independent_http.server --port 8765 --db /tmp/indie.sqlite3``.
"""
