"""A second vendor written from the contract and the rules alone, served over HTTP.

Like the first (``tests/faulty/independent_http``) it is the project's test of its own
reading, and it shares no code with the reference nor with the first vendor. What it takes
from the project is data a vendor gets from elsewhere: units made by
``instantcert generate-block`` (its "generator", run as a command) and the independent
evaluator of ``tests/faulty/_evaluator.py`` for evaluate and AUTO's wins. Wherever the
contract leaves a freedom it takes it the other way from the first vendor:

- its own HTTP/1.1 server on asyncio streams (``wire.py``): one request a connection, every
  answer ``CONNECTION: close``, header names in capitals, status lines with an empty reason
  phrase, JSON compact and sized; a block stream neither sized nor chunked but ended by
  closing the connection (RFC 9112 6.3), gzipped (``CONTENT-ENCODING: gzip``) unless the
  request's Accept-Encoding leaves gzip out, its lines ended by CRLF (JSON Lines: the
  ``\\r`` is whitespace after each value); ``Expect: 100-continue``, chunked request bodies
  and ``HEAD`` understood;
- an append-only journal of JSON lines, fsynced before each answer that depends on it and
  replayed at start (``journal.py``), not a database;
- blocks never written whole: pages of 100 000 units made by the generator when first
  needed, each block's seed derived from the journal's secret master seed (``pages.py``);
  two blocks of every stake made ahead of the one on sale, listed with it, newest first;
- UUID account ids, play ids ``pl_`` and 24 hex digits, opaque tokens (256 random bits in
  standard base64, ``+``, ``/`` and ``=`` included; only their SHA-256 kept), block ids
  ``robots:100:00001:3f9a2c`` (a ``:`` in the path: the generator, which takes no ``:``, is
  given the id with ``.`` and the header is served with the vendor's);
- each game's stakes declared largest first (``[200, 100, 50]``), capabilities in another
  order; ``LOCATION`` on a new account's 201;
- 401 for no or an unknown token, 404 for someone else's account or play (as for none);
- its own error codes and wording; fields in another order, extra fields everywhere
  (``count``, ``revealed``, ``click``, ``game``, ``fully_revealed``, ``total``,
  ``served_by``);
- ``100.0`` taken where a whole number of cents or a button is due (``100.5``, ``true``
  not);
- a history page of 10 without ``limit``, ``limit`` 1 to 100 000 (400 outside);
- a slice running past a block's end refused (400), not clipped; ``count`` 0 refused;
- AUTO asked again answers the same ticket (nothing moves); AUTO's wins in reverse order;
  a reveal asked on an eldorado play refused with 422 (the game has no buttons);
- ``created_at`` in UTC with a ``Z`` and microseconds.

Run it: ``python -m tests.faulty.independent_http2.server --port 8766 --db /tmp/indie2.journal``
(``--no-warm-up``: make no page of units at start; ``--one-open-ticket``: a play refused
with 409 while the account holds a robots ticket not fully shown, as FDJ's sites do).
"""
