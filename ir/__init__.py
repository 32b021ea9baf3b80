"""Pure information-retrieval code, no Django: file formats, pooling algorithms, measures and the
prime filter, statistics, agreement maths, chart geometry. Plain data in, plain data out."""
