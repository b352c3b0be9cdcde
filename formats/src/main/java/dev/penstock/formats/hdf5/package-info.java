/// HDF5 input through jHDF: a 2-D numeric dataset streamed as feature rows.
package dev.penstock.formats.hdf5;
