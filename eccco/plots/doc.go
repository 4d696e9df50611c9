// Package plots renders what eccco computes into pictures: for now, grids of image samples (SGLD samples
// per class, counterfactuals of MNIST digits) as PNG files. Figures of the paper build on it as their
// issues land.
package plots
