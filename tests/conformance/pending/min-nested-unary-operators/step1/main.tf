output "not_not" { value = !!true }
output "neg_neg" { value = - -3 }
