"""The local memory service: JSON Lines over a unix socket, one request per connection
(``protocol``, ``methods``, ``server``, ``client``). It acts as the user it runs as; every
rule lives in the engine, this package only checks JSON shapes."""
