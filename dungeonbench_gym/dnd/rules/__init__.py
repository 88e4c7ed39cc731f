"""Rule services every mechanic may use, and the tables mechanics register into (:mod:`.hooks`)."""
