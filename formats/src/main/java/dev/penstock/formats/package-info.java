/// What the input readers share: `FeatureRows`, rows read by index.
package dev.penstock.formats;
