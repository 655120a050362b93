"""The local memory service: JSON Lines over a unix socket, one request per
connection, for agents written in any language.

- ``protocol``: reading a bounded request, parsing and checking it, encoding responses, the
  error codes;
- ``methods``: the method table (name -> parameter types -> engine call);
- ``server``: ``MemoryService``, the socket server (``memtui serve``);
- ``client``: ``call``, a small client (``memtui call``).

The service acts as the user it runs as; no request can act as anyone else. Every rule lives
in the engine (``memtui.engine``): this package only checks JSON shapes and types.
"""
