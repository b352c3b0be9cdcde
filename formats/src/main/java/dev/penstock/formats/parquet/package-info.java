/// Parquet input through Hardwood: numeric columns streamed as feature rows.
package dev.penstock.formats.parquet;
