/// Zarr format v2 output (directory store), readable by zarr-python 2.x.
package dev.penstock.formats.zarr;
