/// Arrow IPC input (file and stream formats, Feather v2): numeric columns or one fixed-size
/// list column, read from the memory-mapped file as feature rows.
package dev.penstock.formats.arrow;
