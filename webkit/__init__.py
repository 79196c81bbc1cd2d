"""The web kit: what the table site (``webui``) and the club server (``club``) share.

- :mod:`webkit.lang`: the visitor's language (``?lang=``, else the cookie, else Chinese), the
  zh/en switch, and :func:`webkit.lang.setup`, which gives an app all of the below at once;
- :mod:`webkit.words`: the page words both sites use (log in, the language switch), over the
  game's words of :mod:`engine.words`;
- :mod:`webkit.lockout`: the brake on PIN guessing (one :class:`~webkit.lockout.Attempts` rule);
- :mod:`webkit.csrf`: the session's form token (one strength);
- :mod:`webkit.qr`: a QR code as inline SVG (segno);
- :mod:`webkit.body`: a request's JSON body as one object, or a 400 (bad JSON, NaN, deep nesting);
- :mod:`webkit.host`: a Host header no URL can be built for answered 400 on the site's error page;
- :mod:`webkit.server`: waitress with a cap on the connections one address may hold;
- ``templates/webkit/base.html``: the page both sites' base templates extend (header with the
  brand, the site's links and the language switch; main; footer).

The kit depends on Flask, waitress, segno and the standard library, and on ``engine.words`` alone of the
project; the table site, the club server, the box, the command line and the benchmarks may import it.
"""
