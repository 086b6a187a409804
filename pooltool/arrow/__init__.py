"""Arrow arrays to and from numpy, and Arrow's compute kernels, without loading pandas
or :mod:`pyarrow.compute` (:mod:`pooltool.arrow.numbers`, :mod:`pooltool.arrow.kernels`):
below the readers and the ranking, which both use them."""
