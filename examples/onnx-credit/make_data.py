#!/usr/bin/env python3
"""Writes credit.csv, a mixed-type CSV for the ONNX example, from the paper's german_credit.csv.

German Credit (Hofmann 1994; UCI Statlog, CC BY 4.0). The paper's file codes every categorical attribute
A<attribute><level> by its level (data/README.md); this script keeps eleven of the twenty attributes and
writes the categorical and ordinal ones by their UCI meaning, as a user's CSV would hold them.

Usage: python3 make_data.py [PATH/german_credit.csv]   (default: ../../data/cache/german_credit.csv)
"""
import csv
import sys

src = sys.argv[1] if len(sys.argv) > 1 else "../../data/cache/german_credit.csv"

checking = {"1": "<0 DM", "2": "0-200 DM", "3": ">=200 DM", "4": "none"}
purpose = {"0": "new car", "1": "used car", "2": "furniture", "3": "radio/TV", "4": "appliances",
           "5": "repairs", "6": "education", "7": "vacation", "8": "retraining", "9": "business",
           "10": "other"}
savings = {"1": "<100 DM", "2": "100-500 DM", "3": "500-1000 DM", "4": ">=1000 DM", "5": "unknown"}
employment = {"1": "unemployed", "2": "<1 year", "3": "1-4 years", "4": "4-7 years", "5": ">=7 years"}
status = {"1": "male divorced/separated", "2": "female divorced/separated/married", "3": "male single",
          "4": "male married/widowed", "5": "female single"}
housing = {"1": "rent", "2": "own", "3": "for free"}
foreign = {"1": "yes", "2": "no"}

cols = ["checking", "duration_months", "credit_amount", "purpose", "savings", "employment",
        "installment_rate", "personal_status", "age", "housing", "foreign_worker", "credit"]
with open(src, newline="") as f, open("credit.csv", "w", newline="") as out:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols)
    for r in csv.DictReader(f):
        w.writerow([
            checking[r["Account Balance"]], r["Duration of Credit (month)"], r["Credit Amount"],
            purpose[r["Purpose"]], savings[r["Value Savings/Stocks"]],
            employment[r["Length of current employment"]], r["Instalment per cent"],
            status[r["Sex & Marital Status"]], r["Age (years)"], housing[r["Type of apartment"]],
            foreign[r["Foreign Worker"]], "good" if r["target"] == "1" else "bad",
        ])
