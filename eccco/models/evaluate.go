package models

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/gomlx/compute"
)

// Scores are the standard classification scores the paper reports per model (Table "Various standard
// performance metrics"): accuracy and the macro averages (unweighted mean over classes) of precision and F1.
type Scores struct {
	Accuracy  float64 `json:"accuracy"`
	Precision float64 `json:"precision"` // macro precision
	F1        float64 `json:"f1"`        // macro F1
}

// ScoresFromPredictions computes Scores from true and predicted labels in [0, k). A class that is never
// predicted has precision 0, and a class with precision and recall 0 has F1 0 (scikit-learn's
// zero_division=0 convention).
func ScoresFromPredictions(yTrue, yPred []int, k int) (Scores, error) {
	if len(yTrue) != len(yPred) || len(yTrue) == 0 {
		return Scores{}, fmt.Errorf("scores: %d true labels and %d predictions", len(yTrue), len(yPred))
	}
	tp, predicted, actual := make([]float64, k), make([]float64, k), make([]float64, k)
	correct := 0
	for i, y := range yTrue {
		p := yPred[i]
		if y < 0 || y >= k || p < 0 || p >= k {
			return Scores{}, fmt.Errorf("scores: label %d or prediction %d outside [0, %d)", y, p, k)
		}
		predicted[p]++
		actual[y]++
		if p == y {
			tp[y]++
			correct++
		}
	}
	var s Scores
	for c := range k {
		var prec, rec, f1 float64
		if predicted[c] > 0 {
			prec = tp[c] / predicted[c]
		}
		if actual[c] > 0 {
			rec = tp[c] / actual[c]
		}
		if prec+rec > 0 {
			f1 = 2 * prec * rec / (prec + rec)
		}
		s.Precision += prec / float64(k)
		s.F1 += f1 / float64(k)
	}
	s.Accuracy = float64(correct) / float64(len(yTrue))
	return s, nil
}

// Evaluate predicts every row of ds with clf (batched) and scores the predictions.
func Evaluate(backend compute.Backend, clf Classifier, ds *data.Dataset) (Scores, error) {
	if ds.D() != clf.NumFeatures() {
		return Scores{}, fmt.Errorf("evaluating on %q: %d features, the model expects %d", ds.Name, ds.D(), clf.NumFeatures())
	}
	pred, err := Predict(backend, clf, ds.X)
	if err != nil {
		return Scores{}, fmt.Errorf("evaluating on %q: %w", ds.Name, err)
	}
	return ScoresFromPredictions(ds.Y, pred, clf.NumClasses())
}
