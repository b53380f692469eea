J(B│RЩ╣У?w	АXНа©Х┴
ALС?-kcDwEЙ?ШMM*▀▌К©