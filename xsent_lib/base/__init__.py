"""The base layer: what every other package of the library shares, importing none of them.

Device choice and seeding (``runtime``), thread limits for small work (``threads``), masked pooling
and batch checks (``masking``), and nearest-neighbour search with CSLS and margin scores
(``neighbors``). Book: "How the library is organised".
"""
