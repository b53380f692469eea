Btej
locationweights.binj
offset8j
length24p