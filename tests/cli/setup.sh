# shared prelude, to be written
