BsaJ
ף<