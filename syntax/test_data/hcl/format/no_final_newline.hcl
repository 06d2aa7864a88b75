tabs	=	1
end = 2   